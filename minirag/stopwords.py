"""Words dropped from queries (never from the index) when the query has other words: in the
language the query is identified as, and English and Russian always. They match nearly every
chunk, cost posting-list scans and add only noise. Common function words, written for this project."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS: dict[str, frozenset[str]] = {
    "en": _words(
        "a an and are as at be by for from how i in is it of on or that the this to was what when where which "
        "who why will with you your do does can my me"
    ),
    "ru": _words(
        "и в во на не что с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от "
        "меня еще нет о из ему теперь когда даже ну ли если уже или ни быть был него до вас нибудь опять уж "
        "вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб "
        "без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь "
        "этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об "
        "другой хоть после над больше тот через эти нас про всего них какая много разве три эту моя впрочем "
        "хорошо свою этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между"
    ),
    "de": _words(
        "aber alle allem allen aller alles als also am an andere anderen auch auf aus bei bin bis bist da "
        "damit dann das dass dein deine dem den der des dessen dich die dies diese diesem diesen dieser "
        "dieses dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer für hab habe "
        "haben hat hatte hier hin ich ihm ihn ihnen ihr ihre ihrem ihren ihrer im in indem ins ist jede jedem "
        "jeden jeder jedes jetzt kann kein keine können man mein meine mich mir mit muss nach nicht nichts "
        "noch nun nur ob oder ohne sehr sein seine sich sie sind so soll sondern über um und uns unser unter "
        "vom von vor war waren warum was weil welche welchem welchen welcher welches wenn wer werde werden "
        "wie wieder will wir wird wo wollen zu zum zur wann wieso weshalb wozu wohin woher"
    ),
    "fr": _words(
        "a au aux avec ce ces cette comme comment dans de des du elle en est et être il ils je la le les leur "
        "lui ma mais me même mes moi mon ne nos notre nous on ou où par pas pour qu que quel quelle qui sa "
        "sans se ses son sont sur ta te tes toi ton tu un une vos votre vous y pourquoi combien quand quoi quels quelles"
    ),
    "es": _words(
        "a al como con cual cuando de del el ella en es esta este esto hay la las le les lo los me mi no o "
        "para pero por que qué se sea ser si sin sobre su sus te tu un una uno y ya dónde quién quiénes cuánto cuántos cuáles"
    ),
    "it": _words(
        "a ad al alla alle allo agli ai come con cosa da dal dalla dei del della delle dello di e è gli ha "
        "hanno i il in la le lo ma mi ne nei nel nella nelle non o per perché più quale quando che chi se si "
        "sono su sua sue suo suoi ti tra tu un una uno dove quanto"
    ),
    "pt": _words(
        "a ao aos as com como da das de do dos e é em entre ela ele eles essa esse isso lhe mais mas me na "
        "nas não no nos o os ou para pela pelo por qual quando que se sem ser seu seus sua suas também te um "
        "uma você onde porque quanto quem"
    ),
    "nl": _words(
        "aan al als bij dat de den der des die dit door een en er het hij hoe ik in is je kan maar met na "
        "naar niet nog of om ook op over te tot u uit van voor wat wie wij worden zal ze zich zij zijn waarom waar "
        "wanneer welke hoeveel"
    ),
}
